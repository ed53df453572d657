// Copies the codex files next to the compiled nodes, and icons/ to dist/icons/.
const { src, dest, parallel } = require('gulp');

function nodeAssets() {
	return src(['nodes/**/*.json'], { encoding: false }).pipe(dest('dist/nodes'));
}

function icons() {
	return src(['icons/*.svg'], { encoding: false }).pipe(dest('dist/icons'));
}

exports['build:assets'] = parallel(nodeAssets, icons);
