package dev.kiln.ui.contracts;

/**
 * The Contracts page's rows, where a row that changed in place (the same file, edited) is announced as an update of
 * its index, not as a replacement. A table takes a replacement as "everything may have moved": it rebuilt every
 * visible row and cell, each tick (while a replay plays at 60x, every pulse); an update only makes it lay the rows
 * out again, and just the cells whose value differs are filled anew ({@link dev.kiln.ui.util.InPlaceList}, which the
 * Fleet page's rows use too).
 *
 * <p>Concurrency: FX thread only, as any list a table shows.
 */
final class RowList extends dev.kiln.ui.util.InPlaceList<ContractRow> {
}
