/** jest: contract, Dispatcher and Story validation tests (node environment, ts-jest). */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/src'],
  modulePathIgnorePatterns: ['<rootDir>/.venv', '<rootDir>/ui-tests', '<rootDir>/bench', '<rootDir>/molspace'],
  testMatch: ['<rootDir>/src/**/__tests__/**/*.spec.ts'],
  transform: {
    '^.+\\.[tj]sx?$': ['ts-jest', { tsconfig: { allowJs: true, esModuleInterop: true, module: 'commonjs', moduleResolution: 'node', target: 'ES2022', strict: true, skipLibCheck: true, isolatedModules: true } }]
  },
  transformIgnorePatterns: ['/node_modules/(?!(molstar|@jupyterlab/apputils|sdf-parser|ensure-string|dynamic-typing)/)']
};
