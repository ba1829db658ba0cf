package dev.kiln.ui.projection;

import dev.kiln.core.engine.Engine;
import dev.kiln.testkit.DaemonTest;
import java.nio.file.Path;
import java.time.Clock;

/** {@link StalenessViewModelTest} against a remote engine attached to a daemon on loopback. */
@DaemonTest
class StalenessViewModelRemoteTest extends StalenessViewModelTest {
    @Override
    protected Engine newEngine(Path workspace, Clock clock) {
        return remote(workspace, clock);
    }
}
