package dev.kiln.ui.seeds;

import dev.kiln.core.engine.Engine;
import dev.kiln.testkit.DaemonTest;
import java.nio.file.Path;
import java.time.Clock;

/**
 * {@link SeedsStoreViewModelTest} against a remote engine attached to a daemon on loopback: the daemon holds the
 * store's credentials and moves the seeds on its host; the console has none.
 */
@DaemonTest
class SeedsStoreViewModelRemoteTest extends SeedsStoreViewModelTest {
    @Override
    protected Engine newEngine(Path workspace, Clock clock) {
        return remoteWith(workspace, clock, TestStore.env());
    }
}
