package dev.kiln.core.recording;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kiln.core.Kiln;
import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.core.engine.Engine;
import dev.kiln.core.engine.EngineException;
import dev.kiln.core.projection.TickFinished;
import dev.kiln.core.snapshot.ContractSnapshot;
import dev.kiln.core.telemetry.EventBus;
import dev.kiln.core.telemetry.KilnEvent;
import dev.kiln.testkit.Await;
import dev.kiln.testkit.MutableClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Recordings as a spec: a live local workspace recorded through its engine's frames replays to the contracts it
 * showed at each moment (across keyframe groups, seeking back and forth), a cut or corrupted file opens up to its
 * damage and names it, a bounded file stays bounded, and a replay refuses every action.
 */
class RecordingTest {
    private static final Instant T0 = Instant.parse("2026-12-02T00:00:00Z");

    @TempDir
    Path dir;

    /** What a Contracts row shows of a contract: compared between the live engine and the replay. */
    static List<String> rows(ContractSnapshot s) {
        return s.contracts().stream().map(f -> String.join("|", f.file(), f.leafId(), String.valueOf(f.contract().leafId()),
                String.valueOf(f.contract().title()), String.valueOf(f.contract().status()),
                String.valueOf(f.contract().deadline()), String.valueOf(f.contract().enclosure())))
                .collect(Collectors.toList());
    }

    static void edit(Path ws, int n, String title) throws IOException {
        List<Path> files;
        try (Stream<Path> s = Files.walk(ws.resolve("tasks"))) {
            files = s.filter(p -> p.getFileName().toString().equals("contract.json")).sorted().collect(Collectors.toList());
        }
        Path f = files.get(n % files.size());
        String text = Files.readString(f);
        Files.writeString(f, text.replaceFirst("\"title\" : \"[^\"]*\"", "\"title\" : \"" + title + "\""));
    }

    @Test
    void record_liveLocalWorkspaceWithEdits_replaysToTheContractsShownAtEachMoment() throws Exception {
        Path ws = dir.resolve("ws");
        new DemoWorkspace().write(ws, 60, 7, false);
        MutableClock clock = new MutableClock(T0);
        Path file = dir.resolve("session.kilnrec");
        List<Instant> moments = new ArrayList<>();
        List<List<String>> shown = new ArrayList<>();
        try (Kiln kiln = Kiln.open(ws, new EventBus(), clock); Engine engine = kiln.engine()) {
            engine.projection().start(false);
            try (Recorder rec = Recorder.builder().file(file).clock(clock).keyframeEvery(Duration.ofSeconds(30))
                    .source("local", ws.toString(), ws.toString(), Duration.ofSeconds(30)).build();
                    AutoCloseable feed = engine.frames((e, d) -> {
                        try {
                            rec.frame(e, d);
                        } catch (IOException ex) {
                            throw new IllegalStateException(ex);
                        }
                    })) {
                Await.await("the snapshot recorded", () -> rec.frames() >= 1);
                for (int i = 0; i < 8; i++) {
                    clock.advance(Duration.ofSeconds(11)); // 8 x 11 s: three keyframe groups
                    edit(ws, i * 7, "edited " + i);
                    long before = rec.frames();
                    engine.projection().projectNow();
                    Await.await("the delta and the tick recorded", () -> rec.frames() >= before + 2);
                    moments.add(clock.instant());
                    shown.add(rows(engine.projection().snapshot()));
                }
            }
        }

        Recording r = Recording.open(file);
        assertThat(r.damage()).isEmpty();
        assertThat(r.groups()).hasSizeGreaterThanOrEqualTo(3);
        assertThat(r.sourceKind()).isEqualTo("local");
        try (ReplayEngine replay = ReplayEngine.open(file, System::nanoTime)) {
            List<KilnEvent> events = new CopyOnWriteArrayList<>();
            replay.events().subscribe(events::add);
            replay.start(false);
            // backwards, then forwards: every seek lands on the state of that moment, whatever group it starts from
            for (int i = moments.size() - 1; i >= 0; i--) {
                replay.seek(moments.get(i));
                assertThat(rows(replay.snapshot())).as("moment %d", i).isEqualTo(shown.get(i));
                assertThat(replay.clock().instant()).isEqualTo(moments.get(i));
            }
            for (int i = 0; i < moments.size(); i++) {
                replay.seek(moments.get(i));
                assertThat(rows(replay.snapshot())).as("moment %d", i).isEqualTo(shown.get(i));
            }
            assertThat(rows(replay.snapshot()).toString()).contains("edited 7");
            // stepping plays up to the next change and publishes its tick, as it arrived live
            replay.seek(moments.get(2).minusSeconds(5));
            events.clear();
            assertThat(replay.stepToNextChange()).isTrue();
            assertThat(replay.position()).isEqualTo(moments.get(2));
            assertThat(rows(replay.snapshot())).isEqualTo(shown.get(2));
            assertThat(events).anySatisfy(e -> assertThat(e).isInstanceOf(TickFinished.class));
            // read-only: every action is refused, saying why
            assertThatThrownBy(replay::projectNow).isInstanceOf(EngineException.class).hasMessageContaining("read-only");
            assertThatThrownBy(() -> replay.heal(true, "k")).isInstanceOf(EngineException.class)
                    .extracting(e -> ((EngineException) e).kind()).isEqualTo(EngineException.Kind.REJECTED);
            assertThatThrownBy(() -> replay.frames((e, d) -> { })).isInstanceOf(EngineException.class);
        }
    }

    /** A synthetic recording of many small blocks (a block per frame) over the frames a daemon sends. */
    private Path blocks(int frames) throws IOException {
        MutableClock clock = new MutableClock(T0);
        Path file = dir.resolve("blocks.kilnrec");
        try (Recorder rec = Recorder.builder().file(file).clock(clock).blockEvery(Duration.ZERO)
                .keyframeEvery(Duration.ofSeconds(20)).source("remote", "http://127.0.0.1:7117/", "/srv/ws", Duration.ofSeconds(30))
                .build()) {
            rec.frame("snapshot", "{\"format\":1,\"revision\":1,\"leaves\":[{\"file\":\"a/contract.json\",\"leaf_id\":\"a\","
                    + "\"title\":\"A\",\"status\":\"running\",\"enclosure\":[]}],\"failures\":[],\"meta\":{}}");
            for (int i = 2; i <= frames; i++) {
                clock.advance(Duration.ofSeconds(1));
                rec.frame("delta", "{\"revision\":" + i + ",\"previous\":" + (i - 1) + ",\"added\":{},\"changed\":{\"a\":"
                        + "{\"file\":\"a/contract.json\",\"leaf_id\":\"a\",\"title\":\"A " + i + "\",\"status\":\"running\","
                        + "\"enclosure\":[]}},\"removed\":[]}");
            }
        }
        return file;
    }

    @Test
    void open_fileCutAtRandomBytes_opensUpToItsEndAndNamesIt() throws Exception {
        Path whole = blocks(120);
        byte[] bytes = Files.readAllBytes(whole);
        Recording full = Recording.open(whole);
        assertThat(full.damage()).isEmpty();
        long headerEnd = full.groups().get(0).offset();
        Random random = new Random(30);
        for (int round = 0; round < 20; round++) {
            int cut = (int) (headerEnd + 1 + random.nextInt((int) (bytes.length - headerEnd - 1)));
            Path f = dir.resolve("cut-" + round + ".kilnrec");
            Files.write(f, Arrays.copyOf(bytes, cut));
            Recording r = Recording.open(f);
            if (r.damage().isEmpty()) { // cut exactly between two blocks: whole, just shorter
                assertThat(r.validBytes()).isEqualTo(cut);
                assertThat(r.frameCount()).isLessThan(full.frameCount());
                continue;
            }
            Recording.Damage d = r.damage().get();
            assertThat(d.offset()).isLessThanOrEqualTo(cut).isEqualTo(r.validBytes());
            assertThat(d.fileBytes()).isEqualTo(cut);
            assertThat(d.describe()).contains("byte " + d.offset()).contains("of " + cut).contains("ends inside");
            assertThat(r.frameCount()).isLessThan(full.frameCount());
            if (!r.groups().isEmpty()) {
                assertThat(d.lastTime()).isEqualTo(r.end().orElseThrow());
                // every whole frame reads back, and the replay ends at the cut's last frame
                try (ReplayEngine replay = ReplayEngine.open(f, System::nanoTime)) {
                    replay.start(false);
                    replay.seek(Instant.MAX.minusSeconds(1));
                    assertThat(replay.position()).isEqualTo(d.lastTime());
                    long revision = (d.lastTime().getEpochSecond() - T0.getEpochSecond()) + 1;
                    assertThat(replay.snapshot().contracts().get(0).contract().title()).isEqualTo(revision == 1 ? "A" : "A " + revision);
                }
            }
        }
        // a flipped byte: the block's checksum names it
        byte[] flipped = bytes.clone();
        int at = (int) (bytes.length * 2 / 3);
        flipped[at] ^= 0x40;
        Path f = dir.resolve("flipped.kilnrec");
        Files.write(f, flipped);
        Recording r = Recording.open(f);
        assertThat(r.damage()).get().satisfies(d -> {
            assertThat(d.offset()).isLessThanOrEqualTo(at);
            assertThat(d.fileBytes()).isEqualTo(bytes.length);
        });
        // a header cut: refused, naming the file
        Path h = dir.resolve("head.kilnrec");
        Files.write(h, Arrays.copyOf(bytes, 12));
        assertThatThrownBy(() -> Recording.open(h)).isInstanceOf(IOException.class).hasMessageContaining(h.toString());
        Path other = dir.resolve("other.kilnrec");
        Files.writeString(other, "{\"not\": \"a recording\"}");
        assertThatThrownBy(() -> Recording.open(other)).hasMessageContaining("is no Kiln recording");
    }

    @Test
    void recorder_overItsBound_dropsTheOldestGroupsAndStaysReadable() throws Exception {
        MutableClock clock = new MutableClock(T0);
        Path file = dir.resolve("bounded.kilnrec");
        StringBuilder big = new StringBuilder("{\"format\":1,\"revision\":1,\"leaves\":[");
        Random random = new Random(1);
        for (int i = 0; i < 400; i++) { // poorly compressible leaves: the bound is reached soon
            big.append(i == 0 ? "" : ",").append("{\"file\":\"l").append(i).append("/contract.json\",\"leaf_id\":\"l").append(i)
                    .append("\",\"title\":\"").append(Long.toHexString(random.nextLong())).append(Long.toHexString(random.nextLong()))
                    .append("\",\"status\":\"running\",\"enclosure\":[]}");
        }
        big.append("],\"failures\":[],\"meta\":{}}");
        try (Recorder rec = Recorder.builder().file(file).clock(clock).maxBytes(1 << 20).keyframeEvery(Duration.ofSeconds(10))
                .source("local", "ws", "/ws", Duration.ofSeconds(30)).build()) {
            rec.frame("snapshot", big.toString());
            for (int i = 2; i < 400; i++) {
                clock.advance(Duration.ofSeconds(11)); // every frame starts a group with a ~20 KB keyframe
                rec.frame("delta", "{\"revision\":" + i + ",\"previous\":" + (i - 1) + ",\"added\":{},\"changed\":{},\"removed\":[]}");
            }
        }
        assertThat(Files.size(file)).isLessThanOrEqualTo(1 << 20);
        Recording r = Recording.open(file);
        assertThat(r.damage()).isEmpty();
        assertThat(r.start().orElseThrow()).isAfter(T0);
        try (ReplayEngine replay = ReplayEngine.open(file, System::nanoTime)) {
            replay.start(false);
            assertThat(replay.snapshot().contracts()).hasSize(400);
        }
    }
}
