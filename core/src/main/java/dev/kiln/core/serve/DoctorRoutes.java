package dev.kiln.core.serve;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kiln.core.serve.wire.Wire;
import dev.kiln.core.telemetry.Ticker;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * {@code GET doctor}: the staleness doctor's verdict on the daemon's published state, the shape {@code kiln doctor
 * --json} prints, with an {@code Age} header.
 *
 * <p>Concurrency: the cached verdict is guarded by {@code this}, held through a diagnosis so that concurrent askers
 * wait for one.
 */
final class DoctorRoutes implements Rules.Routes {
    private final ApiServer.Backend backend;
    private final Ticker ticker;
    private final Duration maxAge;
    private @Nullable JsonNode verdict; // guarded by this
    private long revision; // guarded by this
    private long at; // guarded by this

    DoctorRoutes(ApiServer.Backend backend, Ticker ticker, Duration maxAge) {
        this.backend = backend;
        this.ticker = ticker;
        this.maxAge = maxAge;
    }

    @Override
    public void routing(Rules rules) {
        rules.get(Wire.DOCTOR, this::doctor);
    }

    /**
     * The verdict, computed at most once per revision and per {@code maxAge}: each diagnosis runs a read-only
     * projection of the workspace, and any local reader may ask (no token on loopback), so one that hammers the
     * route must not make the daemon project for it.
     */
    private void doctor(Exchange x) throws IOException {
        JsonNode answer;
        long age;
        synchronized (this) {
            Published p = backend.current();
            long now = ticker.read();
            long r = p == null ? -1 : p.revision();
            JsonNode v = verdict;
            if (v == null || r != revision || now - at >= maxAge.toNanos()) {
                v = backend.doctor();
                verdict = v;
                revision = r;
                at = now;
            }
            answer = v;
            age = now - at;
        }
        x.answerHeader("Age", Long.toString(TimeUnit.NANOSECONDS.toSeconds(age)));
        x.json(200, answer);
    }
}
