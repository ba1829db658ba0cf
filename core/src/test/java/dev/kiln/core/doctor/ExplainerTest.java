package dev.kiln.core.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.core.projection.Projector;
import dev.kiln.core.projection.PublishedState;
import dev.kiln.core.projection.WakeReason;
import dev.kiln.core.watch.ChangeWatcher;
import dev.kiln.core.watch.WatchStatus;
import dev.kiln.core.workspace.WorkspaceLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The causes a real daemon cannot be made to show on a shared machine (the system's inotify limit, a failing tick, a
 * clock jumping back), from the daemon's metrics as {@code /api/metrics} gives them, over a real workspace whose
 * contract changed after its state.json was written. The other causes are provoked for real in the app's
 * {@code DoctorCommandTest}, against a real {@code kiln serve}.
 */
class ExplainerTest {
    @TempDir
    Path dir;

    private WorkspaceLayout layout;

    @BeforeEach
    void staleWorkspace() throws Exception {
        new DemoWorkspace().write(dir, 30, 3, false);
        layout = WorkspaceLayout.of(dir);
        Projector.builder(layout).build().tick(WakeReason.STARTUP);
        Path f;
        try (Stream<Path> s = Files.walk(layout.tasksDir())) {
            f = s.filter(p -> p.getFileName().toString().equals("contract.json")).sorted().findFirst().orElseThrow();
        }
        Files.writeString(f, Files.readString(f).replaceFirst("\"title\" : \"[^\"]*\"", "\"title\" : \"Changed\""));
    }

    @Test
    void explain_watchDegradedByTheInotifyLimit_namesTheSysctlToRaise() throws Exception {
        String reason;
        try (ChangeWatcher w = ChangeWatcher.builder(layout).watchLimit(1).listener(new Quiet()).build()) {
            w.start(); // a real watcher refused by the limit: its reason is what /api/metrics shows
            reason = w.status().reason();
        }
        assertThat(reason).contains("inotify watch limit reached");

        Diagnosis d = diagnose(metrics("degraded", reason, ""));

        assertThat(d.verdict()).isEqualTo(Diagnosis.Verdict.STALE);
        assertThat(d.differences()).singleElement().satisfies(x -> assertThat(x.cause()).isEqualTo(Cause.INOTIFY_LIMIT));
        assertThat(d.headline()).contains("because the inotify watch limit was reached");
        assertThat(d.remedies().get(0)).contains("sudo sysctl fs.inotify.max_user_watches=524288");
    }

    @Test
    void explain_watchDegradedOtherwise_saysSinceWhenAndWhy() throws Exception {
        Diagnosis d = diagnose(metrics("degraded", "tasks/ was deleted", ""));

        assertThat(d.differences().get(0).cause()).isEqualTo(Cause.WATCH_DEGRADED);
        assertThat(d.differences().get(0).explanations().get(0).evidence()).contains("degraded since").contains("tasks/ was deleted");
    }

    @Test
    void explain_lastTickFailed_quotesTheError() throws Exception {
        Diagnosis d = diagnose(metrics("live", "", "java.io.IOException: No space left on device"));

        assertThat(d.differences().get(0).cause()).isEqualTo(Cause.TICK_FAILED);
        assertThat(d.differences().get(0).explanations().get(0).evidence()).contains("failed: java.io.IOException: No space left");
        assertThat(d.exitCode()).isEqualTo(1);
    }

    @Test
    void explain_daemonTickTimesRunBackwards_saysTheClockJumped() throws Exception {
        ObjectNode m = metrics("live", "", "");
        Instant now = Instant.now();
        m.putArray("history").add(tick(1, now.minusSeconds(5))).add(tick(2, now.minus(Duration.ofHours(1))));

        Diagnosis d = diagnose(m);

        assertThat(d.evidence()).anySatisfy(e -> assertThat(e).contains("tick #2 ran at").contains("the wall clock jumped back"));
        assertThat(d.mentions(Cause.CLOCK_JUMPED)).isTrue();
        assertThat(d.remedies()).anySatisfy(r -> assertThat(r).contains("timedatectl"));
    }

    private Diagnosis diagnose(ObjectNode metrics) throws Exception {
        PublishedState published = PublishedState.read(layout.stateFile());
        DaemonEvidence daemon = new DaemonEvidence();
        daemon.state = DaemonEvidence.State.RUNNING;
        daemon.metrics = metrics;
        daemon.heartbeat = Duration.ofSeconds(15);
        daemon.interval = Duration.ofSeconds(1);
        daemon.pacingSource = "the defaults";
        Projector fresh = Projector.builder(layout).readOnly().build();
        Instant at = fresh.tick(WakeReason.MANUAL).at();
        Explainer x = new Explainer(layout, at, ZoneOffset.UTC, published, daemon);
        List<Difference> ds = Comparison.of(published, fresh.projection()).stream().map(x::explain).toList();
        return x.diagnosis(ds, 30, layout.root().toString(), 1.0);
    }

    private ObjectNode metrics(String mode, String reason, String error) throws Exception {
        long revision = PublishedState.read(layout.stateFile()).revision();
        ObjectNode m = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
        m.put("workspace", layout.root().toString());
        m.put("revision", revision);
        m.put("projections", 3);
        ObjectNode last = tick(3, Instant.now().minusSeconds(30));
        if (!error.isEmpty()) {
            last.put("error", error);
        }
        m.set("last_tick", last);
        m.putObject("watch").put("mode", mode).put("reason", reason).put("since", Instant.now().minusSeconds(60).toString())
                .put("watched_directories", 0).put("inotify_limit", 1);
        m.putArray("history");
        return m;
    }

    private static ObjectNode tick(long seq, Instant at) {
        return com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode().put("seq", seq).put("reason", "heartbeat").put("full", false)
                .put("at", at.toString()).put("changed_paths", 0).put("revision", 1);
    }

    private static final class Quiet implements ChangeWatcher.Listener {
        @Override
        public void onChange(dev.kiln.core.watch.ChangeDomain domain, Path path) {
        }

        @Override
        public void onLive(WatchStatus status) {
        }

        @Override
        public void onDegraded(WatchStatus status) {
        }
    }
}
