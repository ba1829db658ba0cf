package dev.kiln.core.projection;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Run in a second JVM by {@code StateFileCrashTest}: writes revision after revision of a state document into
 * TARGET until it is killed, written behind ({@code behind}) or in the caller ({@code sync}). Prints
 * {@code ready} once the first revision is in place.
 */
public final class StateWriterMain {
    private StateWriterMain() {
    }

    public static void main(String[] args) throws Exception {
        Path target = Path.of(args[0]);
        boolean behind = args[1].equals("behind");
        int leaves = Integer.parseInt(args[2]);
        StateFile f = behind ? StateFile.writtenBehind(target, 0, Duration.ZERO) : new StateFile(target);
        for (long rev = 1; ; rev++) {
            f.write(document(rev, leaves));
            if (rev == 1) {
                f.flush();
                System.out.println("ready");
                System.out.flush();
            }
        }
    }

    /**
     * A document of {@code leaves} leaves in chunks of 64, each leaf carrying the revision: a reader that ever saw
     * parts of two revisions would find a leaf whose revision is not the document's.
     */
    static StateDocument.Segments document(long rev, int leaves) {
        byte[] head = ("{\"format\":1,\"revision\":" + rev + ",\"generated_at\":\"x\",\"workspace\":\"/ws\",\"leaves\":[")
                .getBytes(StandardCharsets.UTF_8);
        int chunks = (leaves + 63) / 64;
        byte[][] cs = new byte[chunks][];
        for (int c = 0; c < chunks; c++) {
            StringBuilder b = new StringBuilder();
            for (int i = c * 64; i < Math.min(leaves, (c + 1) * 64); i++) {
                if (i > c * 64) {
                    b.append(',');
                }
                b.append("{\"leaf_id\":\"t/leaf-").append(i).append("\",\"rev\":").append(rev)
                        .append(",\"title\":\"").append("x".repeat(200)).append("\"}");
            }
            cs[c] = b.toString().getBytes(StandardCharsets.UTF_8);
        }
        byte[] tail = ("],\"failures\":[],\"meta\":{\"rev\":" + rev + "},\"tick\":{}}").getBytes(StandardCharsets.UTF_8);
        return new StateDocument.Segments(head, cs, tail);
    }
}
