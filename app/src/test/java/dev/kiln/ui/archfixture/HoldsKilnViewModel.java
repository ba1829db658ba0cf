package dev.kiln.ui.archfixture;

import dev.kiln.core.Kiln;

/** Fixture for {@code ArchitectureTest}: a view model that holds the in-process {@code Kiln} instead of an engine. */
public final class HoldsKilnViewModel {
    private final Kiln kiln;

    public HoldsKilnViewModel(Kiln kiln) {
        this.kiln = kiln;
    }

    public String where() {
        return kiln.layout().root().toString();
    }
}
