// Copies icons and codex files next to the compiled nodes and credentials.
const { src, dest, parallel } = require('gulp');

function nodeAssets() {
	return src(['nodes/**/*.svg', 'nodes/**/*.png', 'nodes/**/*.json'], { encoding: false }).pipe(dest('dist/nodes'));
}

function credentialAssets() {
	return src(['credentials/**/*.svg', 'credentials/**/*.png'], { encoding: false }).pipe(dest('dist/credentials'));
}

exports['build:assets'] = parallel(nodeAssets, credentialAssets);
