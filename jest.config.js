/** jest: contract, Dispatcher and Story validation tests (node environment, ts-jest). */
module.exports = {
  testEnvironment: 'node',
  // One worker a core (jest's default leaves one free): on 2 cores the cold ts-jest transforms of
  // Mol*'s sources took 218 s in one worker and 149 s in two.
  maxWorkers: '100%',
  roots: ['<rootDir>/src'],
  modulePathIgnorePatterns: ['<rootDir>/.venv', '<rootDir>/ui-tests', '<rootDir>/bench', '<rootDir>/molspace'],
  testMatch: ['<rootDir>/src/**/__tests__/**/*.spec.ts'],
  transform: {
    '^.+\\.[tj]sx?$': ['ts-jest', { tsconfig: { allowJs: true, esModuleInterop: true, module: 'commonjs', moduleResolution: 'node', target: 'ES2022', strict: true, skipLibCheck: true, isolatedModules: true } }]
  },
  transformIgnorePatterns: ['/node_modules/(?!(molstar|@jupyterlab/apputils|sdf-parser|ensure-string|dynamic-typing)/)']
};
