package dev.kiln.ui.contracts;

/**
 * One line of the Contracts page.
 *
 * @param file path under {@code tasks/}
 * @param declaredId the {@code leaf_id} the file declares (empty when unreadable or missing)
 * @param canonicalId the leaf id its location implies
 * @param state {@code ok}, {@code legacy id}, {@code misplaced id}, {@code no leaf id} or {@code unreadable}
 * @param status the contract's status
 * @param title the contract's title
 * @param deadline {@code yyyy-MM-dd} (UTC), with {@code  · overdue} when past
 * @param problem why it is unreadable, or what is wrong with its id; empty when fine
 * @param parse how the last tick got it: {@code cached}, {@code re-parsed this tick}, {@code parsed} (the first
 *     projection shown) or {@code failed: <reason>}
 * @param changed whether it changed in the last tick (new, edited or newly failing); the page highlights it briefly
 */
public record ContractRow(String file, String declaredId, String canonicalId, String state, String status, String title,
        String deadline, String problem, String parse, boolean changed) {

    /** This row with its change highlight off. */
    public ContractRow settled() {
        return changed ? new ContractRow(file, declaredId, canonicalId, state, status, title, deadline, problem, parse, false) : this;
    }

    /** Whether the row needs a person's attention. */
    public boolean flagged() {
        return !state.equals("ok");
    }
}
