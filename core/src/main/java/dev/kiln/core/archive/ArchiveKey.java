package dev.kiln.core.archive;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;

/**
 * What identifies an archive: the real root path (so two spellings of one directory share an entry), the
 * sorted distinct members and the sorted distinct excludes (order never changes the bytes).
 */
record ArchiveKey(Path root, List<String> members, List<String> excludes) {

    static ArchiveKey of(Path root, Collection<String> members, Collection<String> excludes) {
        if (root == null) {
            throw new ArchiveException("No source root given");
        }
        return new ArchiveKey(realRoot(root), normalizeMembers(root, members), normalizeExcludes(excludes));
    }

    static Path realRoot(Path root) {
        Path real;
        try {
            real = root.toRealPath();
        } catch (NoSuchFileException e) {
            throw new ArchiveException("Source root " + root.toAbsolutePath() + " does not exist; check the path");
        } catch (AccessDeniedException e) {
            throw new ArchiveException("Source root " + root.toAbsolutePath() + " cannot be read (permission denied)");
        } catch (IOException e) {
            throw new ArchiveException("Source root " + root.toAbsolutePath() + " cannot be resolved: " + e.getMessage(), e);
        }
        if (!Files.isDirectory(real)) {
            throw new ArchiveException("Source root " + real + " is not a directory; give the directory that holds the members");
        }
        return real;
    }

    private static List<String> normalizeMembers(Path root, Collection<String> members) {
        TreeSet<String> out = new TreeSet<>();
        for (String m : members == null ? List.<String>of() : members) {
            String s = m == null ? "" : m.strip();
            while (s.endsWith("/") && s.length() > 1) {
                s = s.substring(0, s.length() - 1);
            }
            if (s.isEmpty() || s.equals(".") || s.equals("..") || s.contains("/") || s.contains("\\")) {
                throw new ArchiveException("Member '" + m + "' is not a top-level name in " + root
                        + "; name a file or directory directly under the root (e.g. 'pyproject.toml' or 'src')");
            }
            out.add(s);
        }
        return List.copyOf(out);
    }

    private static List<String> normalizeExcludes(Collection<String> excludes) {
        List<String> out = new ArrayList<>(new TreeSet<>(excludes == null ? List.of() : excludes));
        new Excludes(out); // rejects bad globs now, with the pattern in the message
        return List.copyOf(out);
    }
}
