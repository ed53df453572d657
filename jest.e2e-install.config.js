/** Installed the way self-hosters do it: real n8n (both versions) from a local npm registry, in Debian's chromium. */
module.exports = { ...require('./jest.e2e.config.js'), roots: ['<rootDir>/test/e2e-install'] };
