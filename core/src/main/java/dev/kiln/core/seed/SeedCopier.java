package dev.kiln.core.seed;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Copies a seed into a job's scratch cache: every regular file is a new file with its own inode (never a hard
 * link, never a link back into the seed), so a job can do anything to its cache without touching the seed.
 *
 * <p>uv's cache links each wheel entry to its unpacked archive with a <em>relative</em> symbolic link inside the
 * cache; those are recreated as the same relative links, which then resolve inside the copy. A link that would
 * leave the seed is not recreated (and reported): the copy must never point into the seed or elsewhere.
 *
 * <p>Files are copied by a few threads: most of a uv cache is small files, where the cost is per-file system calls
 * that overlap well.
 */
final class SeedCopier {
    private static final LinkOption[] NOFOLLOW = {LinkOption.NOFOLLOW_LINKS};

    private SeedCopier() {
    }

    static CopyReport copy(Path seed, Path scratch, Clock clock) {
        Instant begin = clock.instant();
        AtomicLong files = new AtomicLong();
        AtomicLong bytes = new AtomicLong();
        AtomicLong links = new AtomicLong();
        List<String> problems = new ArrayList<>();
        Path root = seed.toAbsolutePath().normalize();
        Path dst = scratch.toAbsolutePath().normalize();
        if (!Files.isDirectory(root)) {
            return new CopyReport(false, 0, 0, 0, Duration.between(begin, clock.instant()),
                    Optional.of("no seed at " + root + " (warm the target first); the job proceeds without it"));
        }
        if (dst.startsWith(root) || root.startsWith(dst)) {
            return new CopyReport(false, 0, 0, 0, Duration.between(begin, clock.instant()),
                    Optional.of("the scratch cache " + dst + " and the seed " + root + " overlap; copy refused"));
        }
        int threads = Math.max(2, Math.min(4, Runtime.getRuntime().availableProcessors()));
        ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "seed-copy");
            t.setDaemon(true);
            return t;
        });
        List<Future<?>> pending = new ArrayList<>();
        try {
            Files.createDirectories(dst);
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                    Path to = dst.resolve(root.relativize(dir).toString());
                    if (!Files.isDirectory(to, NOFOLLOW)) {
                        Files.createDirectories(to);
                    }
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Path rel = root.relativize(file);
                    if (rel.getNameCount() == 1 && SeedStore.isKilnFile(rel.toString())) {
                        return FileVisitResult.CONTINUE;
                    }
                    Path to = dst.resolve(rel.toString());
                    if (attrs.isSymbolicLink()) {
                        Path target = Files.readSymbolicLink(file);
                        Path resolved = file.getParent().resolve(target).normalize();
                        if (target.isAbsolute() || !resolved.startsWith(root)) {
                            synchronized (problems) {
                                problems.add("link " + rel + " -> " + target + " leaves the seed; not copied");
                            }
                            return FileVisitResult.CONTINUE;
                        }
                        Files.deleteIfExists(to);
                        Files.createSymbolicLink(to, target);
                        links.incrementAndGet();
                    } else if (attrs.isRegularFile()) {
                        long size = attrs.size();
                        pending.add(pool.submit(() -> {
                            copyFile(file, to);
                            files.incrementAndGet();
                            bytes.addAndGet(size);
                            return null;
                        }));
                    }
                    return FileVisitResult.CONTINUE;
                }
            });
            for (Future<?> f : pending) {
                f.get();
            }
        } catch (IOException e) {
            problems.add("copy failed: " + e);
        } catch (java.util.concurrent.ExecutionException e) {
            problems.add("copy failed: " + e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            problems.add("copy interrupted");
        } finally {
            pool.shutdownNow();
        }
        Duration took = Duration.between(begin, clock.instant());
        Optional<String> problem = problems.isEmpty() ? Optional.empty()
                : Optional.of(String.join("; ", problems) + "; the job proceeds with what was copied");
        return new CopyReport(problems.isEmpty(), files.get(), bytes.get(), links.get(), took, problem);
    }

    private static void copyFile(Path from, Path to) throws IOException {
        try {
            Files.copy(from, to, StandardCopyOption.COPY_ATTRIBUTES, LinkOption.NOFOLLOW_LINKS);
        } catch (FileAlreadyExistsException e) {
            // The job's cache already had this entry: the seed's copy wins, as a fresh file.
            Files.copy(from, to, StandardCopyOption.COPY_ATTRIBUTES, LinkOption.NOFOLLOW_LINKS,
                    StandardCopyOption.REPLACE_EXISTING);
        }
    }
}
