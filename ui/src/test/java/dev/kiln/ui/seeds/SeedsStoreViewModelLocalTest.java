package dev.kiln.ui.seeds;

import dev.kiln.core.engine.Engine;
import java.nio.file.Path;
import java.time.Clock;

/** {@link SeedsStoreViewModelTest} against the in-process engine. */
class SeedsStoreViewModelLocalTest extends SeedsStoreViewModelTest {
    @Override
    protected Engine newEngine(Path workspace, Clock clock) {
        return localWith(workspace, clock, TestStore.env());
    }
}
