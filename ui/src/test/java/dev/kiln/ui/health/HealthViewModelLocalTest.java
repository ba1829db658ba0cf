package dev.kiln.ui.health;

import dev.kiln.core.engine.Engine;
import java.nio.file.Path;
import java.time.Clock;

/** {@link HealthViewModelTest} against the in-process engine. */
class HealthViewModelLocalTest extends HealthViewModelTest {
    @Override
    protected Engine newEngine(Path workspace, Clock clock) {
        return local(workspace, clock);
    }
}
