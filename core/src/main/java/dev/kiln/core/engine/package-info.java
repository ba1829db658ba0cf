/**
 * What the console shows and does, behind one interface: {@link dev.kiln.core.engine.Engine}, in this process
 * ({@code Kiln.engine()}) or on a {@code kiln serve} over its API ({@code dev.kiln.core.serve.client.RemoteEngine}).
 * View models hold an {@code Engine} and cannot tell which they have.
 */
@NullMarked
package dev.kiln.core.engine;

import org.jspecify.annotations.NullMarked;
