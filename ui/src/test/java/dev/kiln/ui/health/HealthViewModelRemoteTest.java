package dev.kiln.ui.health;

import dev.kiln.core.engine.Engine;
import dev.kiln.testkit.DaemonTest;
import java.nio.file.Path;
import java.time.Clock;

/** {@link HealthViewModelTest} against a remote engine attached to a daemon on loopback. */
@DaemonTest
class HealthViewModelRemoteTest extends HealthViewModelTest {
    @Override
    protected Engine newEngine(Path workspace, Clock clock) {
        return remote(workspace, clock);
    }
}
