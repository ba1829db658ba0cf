package dev.kiln.ui.seeds;

import dev.kiln.core.engine.Engine;
import dev.kiln.testkit.DaemonTest;
import java.nio.file.Path;
import java.time.Clock;

/** {@link SeedsViewModelTest} against a remote engine attached to a daemon on loopback. */
@DaemonTest
class SeedsViewModelRemoteTest extends SeedsViewModelTest {
    @Override
    protected Engine newEngine(Path workspace, Clock clock) {
        return remote(workspace, clock);
    }
}
