package dev.kiln.ui.caches;

import dev.kiln.core.engine.Engine;
import dev.kiln.testkit.DaemonTest;
import java.nio.file.Path;
import java.time.Clock;

/** {@link CachesViewModelTest} against a remote engine attached to a daemon on loopback. */
@DaemonTest
class CachesViewModelRemoteTest extends CachesViewModelTest {
    @Override
    protected Engine newEngine(Path workspace, Clock clock) {
        return remote(workspace, clock);
    }
}
