/**
 * What every command shares: the exit-2 {@link dev.kiln.app.common.CliException}, the workspace check and the
 * {@code DIR} / {@code --json} mixins, and the one configured {@link dev.kiln.app.common.Json#MAPPER}. Its own
 * package so that {@code cli} (which registers {@code bench}) and {@code bench} use it without a package cycle.
 */
package dev.kiln.app.common;
