/** The molspace contract: zod schemas shared by the page, the gateway and the kernel. */
export * from './errors';
export * from './limits';
export * from './story';
export * from './workspace';
export * from './toolSpec';
export * from './tools';
export * from './result';
export * from './bridge';
export * from './kernel';
export * from './panel';
export * from './authoring';
export * from './viewer';
export * from './ketcher';
export * from './widgetState';
export * from './export';
export * from './staticFallback';
export * from './app';
