package dev.kiln.core.seed;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The workspace's warm history: one JSON object per line, appended per warm outcome. One short line per append
 * with {@code O_APPEND}, so concurrent warms of different targets never interleave inside a line.
 */
final class WarmJournal {
    private static final Logger LOG = LoggerFactory.getLogger(WarmJournal.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path file;

    WarmJournal(Path file) {
        this.file = file;
    }

    Path file() {
        return file;
    }

    void append(WarmResult r) {
        ObjectNode o = JSON.createObjectNode();
        o.put("at", r.at().toString());
        o.put("target", r.target());
        o.put("outcome", r.outcome().label());
        o.put("hash", r.hash());
        o.put("duration_ms", r.duration().toMillis());
        o.put("bytes", r.bytes());
        o.put("files", r.files());
        o.put("message", r.message());
        r.stderrTail().forEach(o.putArray("stderr_tail")::add);
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, JSON.writeValueAsString(o) + "\n", StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.WRITE);
        } catch (IOException e) {
            // The warm itself is done; losing its history line must not turn it into a failure.
            LOG.warn("Could not append the warm of {} to {}: {}", r.target(), file, e.toString());
        }
    }

    /** Every recorded warm, oldest first; a line that does not parse (a torn write) is skipped. */
    List<WarmResult> read() {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return List.of();
        } catch (IOException e) {
            LOG.warn("Could not read the warm journal {}: {}", file, e.toString());
            return List.of();
        }
        List<WarmResult> out = new ArrayList<>();
        for (String line : lines) {
            if (line.isBlank()) {
                continue;
            }
            try {
                JsonNode o = JSON.readTree(line);
                List<String> tail = new ArrayList<>();
                o.path("stderr_tail").forEach(n -> tail.add(n.asText()));
                out.add(new WarmResult(o.get("target").asText(), WarmOutcome.ofLabel(o.get("outcome").asText()),
                        o.path("hash").asText(""), Instant.parse(o.get("at").asText()),
                        Duration.ofMillis(o.path("duration_ms").asLong()), o.path("bytes").asLong(),
                        o.path("files").asLong(), o.path("message").asText(""), tail));
            } catch (IOException | RuntimeException e) {
                LOG.debug("Skipping a journal line that does not parse: {}", line);
            }
        }
        return out;
    }
}
