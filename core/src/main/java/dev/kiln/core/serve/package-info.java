/**
 * The daemon ({@code kiln serve}): the projector loop driven by the watcher, its lock ({@code observer/serve.lock}),
 * the HTTP API and its SSE hub (package-private), the one JSON wire format both the server and the client use, the
 * client and follower of another process's daemon, {@link dev.kiln.core.serve.client.RemoteEngine} (the console's
 * {@link dev.kiln.core.engine.Engine} over a daemon's API, on this host or another), and
 * {@link dev.kiln.core.serve.WorkspaceOwnership}, the one owner of "who writes this workspace".
 */
@NullMarked
package dev.kiln.core.serve;

import org.jspecify.annotations.NullMarked;
