package dev.kiln.ui.seeds;

import dev.kiln.core.engine.Engine;
import java.nio.file.Path;
import java.time.Clock;

/** {@link SeedsViewModelTest} against the in-process engine. */
class SeedsViewModelLocalTest extends SeedsViewModelTest {
    @Override
    protected Engine newEngine(Path workspace, Clock clock) {
        return local(workspace, clock);
    }
}
