package dev.kiln.core.archive;

import java.nio.file.Path;
import java.util.List;

/** Run in a second JVM by {@code SourceArchiveTest}: builds ROOT's MEMBERS and writes the archive to OUT. */
public final class BuildInAnotherJvm {
    private BuildInAnotherJvm() {
    }

    public static void main(String[] args) throws Exception {
        SourceArchive.build(Path.of(args[0]), List.of(args[2].split(","))).writeTo(Path.of(args[1]));
    }
}
