package dev.kiln.core.serve;

import dev.kiln.core.Kiln;
import dev.kiln.core.engine.Engine;
import dev.kiln.core.telemetry.EventBus;
import java.nio.file.Path;
import java.time.Clock;

/** The engine contract in this process: {@code Kiln.engine()}. */
class LocalEngineContractTest extends EngineContractTest {
    private Kiln kiln;

    @Override
    Engine open(Path ws) {
        kiln = Kiln.open(ws, new EventBus(), Clock.systemUTC());
        return kiln.engine();
    }

    @Override
    void storeEnvironment(java.util.Map<String, String> environment) {
        kiln.storeEnvironment(environment);
    }

    @Override
    void shut() {
        // closing the engine closed its Kiln
    }
}
