package dev.kiln.ui.util;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.CRC32;
import java.util.zip.DeflaterOutputStream;
import javafx.scene.Scene;
import javafx.scene.image.PixelReader;
import javafx.scene.image.WritableImage;

/**
 * Writes a scene as a PNG without {@code javafx.swing}: what the window shows, for docs and reviews. A minimal
 * encoder (RGB, 8 bits, no filtering) is a few lines; pulling in AWT for it is not worth the weight.
 */
public final class PngSnapshot {
    private PngSnapshot() {
    }

    /** Renders {@code scene} (on the FX thread) and writes it to {@code file}. */
    public static void write(Scene scene, Path file) throws IOException {
        write(scene.snapshot(null), file);
    }

    /** Writes {@code image} (a node's or a scene's snapshot) to {@code file}. */
    public static void write(WritableImage image, Path file) throws IOException {
        int w = (int) image.getWidth();
        int h = (int) image.getHeight();
        PixelReader pixels = image.getPixelReader();
        ByteArrayOutputStream raw = new ByteArrayOutputStream(w * h * 3 + h);
        try (DeflaterOutputStream z = new DeflaterOutputStream(raw)) {
            byte[] row = new byte[1 + w * 3];
            for (int y = 0; y < h; y++) {
                row[0] = 0; // filter: none
                for (int x = 0; x < w; x++) {
                    int argb = pixels.getArgb(x, y);
                    row[1 + x * 3] = (byte) (argb >> 16);
                    row[2 + x * 3] = (byte) (argb >> 8);
                    row[3 + x * 3] = (byte) argb;
                }
                z.write(row);
            }
        }
        try (OutputStream out = Files.newOutputStream(file); DataOutputStream d = new DataOutputStream(out)) {
            d.write(new byte[] {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'});
            ByteArrayOutputStream ihdr = new ByteArrayOutputStream();
            DataOutputStream hd = new DataOutputStream(ihdr);
            hd.writeInt(w);
            hd.writeInt(h);
            hd.write(new byte[] {8, 2, 0, 0, 0}); // 8-bit RGB, deflate, no filter, no interlace
            chunk(d, "IHDR", ihdr.toByteArray());
            chunk(d, "IDAT", raw.toByteArray());
            chunk(d, "IEND", new byte[0]);
        }
    }

    private static void chunk(DataOutputStream d, String type, byte[] data) throws IOException {
        byte[] t = type.getBytes(StandardCharsets.US_ASCII);
        d.writeInt(data.length);
        d.write(t);
        d.write(data);
        CRC32 crc = new CRC32();
        crc.update(t);
        crc.update(data);
        d.writeInt((int) crc.getValue());
    }
}
