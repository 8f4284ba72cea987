/** The widget module name and version the kernel side names (`_model_module`, `_model_module_version`). */
declare const require: (id: string) => unknown;
const pkg = require('../package.json') as { name: string; version: string };

export const MODULE_NAME = pkg.name;
export const MODULE_VERSION = pkg.version;
