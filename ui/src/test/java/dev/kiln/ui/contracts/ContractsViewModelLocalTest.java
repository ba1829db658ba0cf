package dev.kiln.ui.contracts;

import dev.kiln.core.engine.Engine;
import java.nio.file.Path;
import java.time.Clock;

/** {@link ContractsViewModelTest} against the in-process engine. */
class ContractsViewModelLocalTest extends ContractsViewModelTest {
    @Override
    protected Engine newEngine(Path workspace, Clock clock) {
        return local(workspace, clock);
    }
}
