/** `ketcher-standalone`'s build with the Indigo WASM as a file of its own; its types are the main entry's. */
declare module 'ketcher-standalone/dist/binaryWasm' {
  export { StandaloneStructServiceProvider } from 'ketcher-standalone';
}
