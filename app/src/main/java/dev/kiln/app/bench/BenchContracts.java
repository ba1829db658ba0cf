package dev.kiln.app.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.app.common.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.stream.Stream;

/** The contracts a benchmark edits: the demo's valid ones, and their bytes with a new title. */
final class BenchContracts {
    private BenchContracts() {
    }

    /** Up to {@code max} contract files under {@code tasks} that parse as objects, in path order. */
    static List<Path> valid(Path tasks, int max) throws IOException {
        List<Path> out = new ArrayList<>();
        try (Stream<Path> s = Files.walk(tasks)) {
            for (Iterator<Path> it = s.filter(p -> p.getFileName().toString().equals("contract.json")).sorted().iterator();
                    it.hasNext() && out.size() < max;) {
                Path f = it.next();
                try {
                    if (Json.MAPPER.readTree(f.toFile()) instanceof ObjectNode) {
                        out.add(f);
                    }
                } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                    // the demo's planted malformed contract: not edited
                }
            }
        }
        return out;
    }

    /** Rewrites {@code f} with a new title. */
    static void edit(Path f, String title) throws IOException {
        Files.write(f, edited(f, title));
    }

    /** The bytes of {@code f} with a new title, prepared before any timer starts. */
    static byte[] edited(Path f, String title) throws IOException {
        ObjectNode c = (ObjectNode) Json.MAPPER.readTree(f.toFile());
        c.put("title", title);
        return Json.MAPPER.writeValueAsBytes(c);
    }
}
