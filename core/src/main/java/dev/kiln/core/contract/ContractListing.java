package dev.kiln.core.contract;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Lists the contract files of a tasks directory with their declared leaf ids: the plain walk the console's
 * first page needs. The projection's snapshot supersedes it where parse caching matters.
 */
public final class ContractListing {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private ContractListing() {
    }

    /**
     * One contract file.
     *
     * @param file path relative to the workspace's {@code tasks/} directory
     * @param leafId the declared {@code leaf_id}, or empty when the file does not parse
     * @param problem why the file could not be read, or empty
     */
    public record Entry(String file, String leafId, String problem) {
    }

    /** Lists {@code tasks/**}{@code /contract.json}, sorted by path; a missing directory lists nothing. */
    public static List<Entry> list(Path tasksDir) throws IOException {
        if (!Files.isDirectory(tasksDir)) {
            return List.of();
        }
        List<Path> files;
        try (Stream<Path> s = Files.walk(tasksDir)) {
            files = s.filter(p -> p.getFileName().toString().equals("contract.json") && Files.isRegularFile(p)).sorted().toList();
        }
        List<Entry> out = new ArrayList<>(files.size());
        for (Path f : files) {
            String rel = tasksDir.relativize(f).toString().replace('\\', '/');
            try {
                JsonNode n = MAPPER.readTree(f.toFile());
                out.add(new Entry(rel, n.path("leaf_id").asText(""), ""));
            } catch (IOException e) {
                out.add(new Entry(rel, "", e.getClass().getSimpleName() + ": " + e.getMessage().lines().findFirst().orElse("")));
            }
        }
        return out;
    }
}
