package dev.kiln.ui.record;

import dev.kiln.core.engine.Engine;
import dev.kiln.testkit.DaemonTest;
import java.nio.file.Path;
import java.time.Clock;

/** {@link ReplayRowsTest} recording a remote engine attached to a daemon on loopback. */
@DaemonTest
class ReplayRowsRemoteTest extends ReplayRowsTest {
    @Override
    protected Engine newEngine(Path workspace, Clock clock) {
        return remote(workspace, clock);
    }
}
