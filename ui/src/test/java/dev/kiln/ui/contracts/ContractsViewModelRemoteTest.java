package dev.kiln.ui.contracts;

import dev.kiln.core.engine.Engine;
import dev.kiln.testkit.DaemonTest;
import java.nio.file.Path;
import java.time.Clock;

/** {@link ContractsViewModelTest} against a remote engine attached to a daemon on loopback. */
@DaemonTest
class ContractsViewModelRemoteTest extends ContractsViewModelTest {
    @Override
    protected Engine newEngine(Path workspace, Clock clock) {
        return remote(workspace, clock);
    }
}
