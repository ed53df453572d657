/** End-to-end tests against real n8n in queue mode (main, workers, webhook process, Redis, Postgres). */
module.exports = { ...require('./jest.e2e.config.js'), roots: ['<rootDir>/test/e2e-queue'] };
