package dev.kiln.ui.record;

import dev.kiln.core.engine.Engine;
import java.nio.file.Path;
import java.time.Clock;

/** {@link ReplayRowsTest} recording the in-process engine. */
class ReplayRowsLocalTest extends ReplayRowsTest {
    @Override
    protected Engine newEngine(Path workspace, Clock clock) {
        return local(workspace, clock);
    }
}
