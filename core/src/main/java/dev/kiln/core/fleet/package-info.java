/**
 * The operator's fleet: the daemons a console and the CLI know by name ({@link dev.kiln.core.fleet.DaemonList},
 * {@code daemons.json} in the user's config directory), each with its URL, token file and certificate pin.
 */
@NullMarked
package dev.kiln.core.fleet;

import org.jspecify.annotations.NullMarked;
