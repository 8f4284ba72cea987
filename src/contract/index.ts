/** The molspace contract: zod schemas shared by the page, the gateway and the kernel. */
export * from './errors';
export * from './story';
export * from './workspace';
export * from './tools';
export * from './bridge';
