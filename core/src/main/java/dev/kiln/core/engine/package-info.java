/**
 * What the console shows and does, behind one interface: {@link dev.kiln.core.engine.Engine}, in this process
 * ({@code Kiln.engine()}) or on a {@code kiln serve} over its API ({@code dev.kiln.core.serve.client.RemoteEngine}).
 * View models hold an {@code Engine} and cannot tell which they have. Its capabilities are facets
 * ({@link dev.kiln.core.engine.Projection}, {@link dev.kiln.core.engine.Seeds}, {@link dev.kiln.core.engine.Probes},
 * {@link dev.kiln.core.engine.Archives}, {@link dev.kiln.core.engine.Store}); the in-process ones are implemented once,
 * here, and handed out by {@link dev.kiln.core.engine.WorkspaceActions} to the local engine and the daemon's routes.
 */
@NullMarked
package dev.kiln.core.engine;

import org.jspecify.annotations.NullMarked;
