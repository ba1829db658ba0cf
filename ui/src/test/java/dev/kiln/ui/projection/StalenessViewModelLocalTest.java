package dev.kiln.ui.projection;

import dev.kiln.core.engine.Engine;
import java.nio.file.Path;
import java.time.Clock;

/** {@link StalenessViewModelTest} against the in-process engine. */
class StalenessViewModelLocalTest extends StalenessViewModelTest {
    @Override
    protected Engine newEngine(Path workspace, Clock clock) {
        return local(workspace, clock);
    }
}
