/**
 * The client of a {@code kiln serve} daemon: {@link dev.kiln.core.serve.client.ServeClient} (its URL, token,
 * certificate pin and API-version check), {@link dev.kiln.core.serve.client.RemoteEngine} (the console's
 * {@link dev.kiln.core.engine.Engine} over the API), the one event-stream reader
 * {@link dev.kiln.core.serve.client.EventStream}, the follower of another process's daemon, the lock reader
 * {@link dev.kiln.core.serve.client.ServeLock} and the doctor's access to daemons. Depends on the wire, never on the
 * daemon.
 */
@NullMarked
package dev.kiln.core.serve.client;

import org.jspecify.annotations.NullMarked;
