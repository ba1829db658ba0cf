package dev.kiln.core.snapshot;

import dev.kiln.core.contract.Contract;
import dev.kiln.core.contract.LeafIds;

/**
 * One parsed contract file of a snapshot. While its file is unchanged, successive snapshots hold the very
 * same instance, so a consumer may cache what it derives from it by identity.
 *
 * @param file path of the contract file relative to {@code tasks/}, {@code /}-separated
 * @param leafId the canonical leaf id, from the file's location (the declared one is {@code contract.leafId()})
 * @param identity the stat identity the contract was parsed at
 * @param contract the parsed contract
 */
public record ContractFile(String file, String leafId, StatIdentity identity, Contract contract) {

    /** How the declared id relates to the location. */
    public LeafIds.Shape idShape() {
        return LeafIds.shape(contract.leafId(), leafId);
    }
}
