package dev.kiln.ui.caches;

import dev.kiln.core.engine.Engine;
import java.nio.file.Path;
import java.time.Clock;

/** {@link CachesViewModelTest} against the in-process engine. */
class CachesViewModelLocalTest extends CachesViewModelTest {
    @Override
    protected Engine newEngine(Path workspace, Clock clock) {
        return local(workspace, clock);
    }
}
