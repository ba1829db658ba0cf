package dev.kiln.core.serve;

import dev.kiln.core.Kiln;
import dev.kiln.core.engine.Engine;
import dev.kiln.core.telemetry.EventBus;
import java.nio.file.Path;
import java.time.Clock;

/** The engine contract in this process: {@code Kiln.engine()}. */
class LocalEngineContractTest extends EngineContractTest {
    @Override
    Engine open(Path ws) {
        return Kiln.open(ws, new EventBus(), Clock.systemUTC()).engine();
    }

    @Override
    void shut() {
        // closing the engine closed its Kiln
    }
}
