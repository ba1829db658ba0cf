package dev.kiln.ui.startup;

import dev.kiln.core.engine.Engine;
import java.nio.file.Path;
import java.time.Clock;

/** {@link StartupViewModelTest} against the in-process engine. */
class StartupViewModelLocalTest extends StartupViewModelTest {
    @Override
    protected Engine newEngine(Path workspace, Clock clock) {
        return local(workspace, clock);
    }
}
