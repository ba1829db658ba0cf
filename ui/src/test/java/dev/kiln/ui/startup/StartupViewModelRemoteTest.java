package dev.kiln.ui.startup;

import dev.kiln.core.engine.Engine;
import dev.kiln.testkit.DaemonTest;
import java.nio.file.Path;
import java.time.Clock;

/** {@link StartupViewModelTest} against a remote engine attached to a daemon on loopback. */
@DaemonTest
class StartupViewModelRemoteTest extends StartupViewModelTest {
    @Override
    protected Engine newEngine(Path workspace, Clock clock) {
        return remote(workspace, clock);
    }
}
