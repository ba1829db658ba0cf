package dev.kiln.icons;

import java.io.InputStream;
import java.util.List;
import java.util.Objects;

/** The app icon in every size it is rendered at. The SVG is the source; the PNGs are made from it. */
public final class Icons {

    /** Sizes of the PNG renditions, smallest first. */
    public static final List<Integer> SIZES = List.of(16, 32, 48, 64, 128, 256);

    private Icons() {
    }

    /** Opens the PNG of the given size; the caller closes it. */
    public static InputStream appIconPng(int size) {
        if (!SIZES.contains(size)) {
            throw new IllegalArgumentException("no " + size + " px rendition; sizes are " + SIZES);
        }
        return open("kiln-" + size + ".png");
    }

    /** Opens the SVG source; the caller closes it. */
    public static InputStream appIconSvg() {
        return open("kiln.svg");
    }

    private static InputStream open(String name) {
        return Objects.requireNonNull(Icons.class.getResourceAsStream(name), () -> "icon resource missing from the build: " + name);
    }
}
