package dev.idempotency.support;

import java.time.Duration;

import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.ClaimResult.Status;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.KeyRelease;
import dev.idempotency.core.KeyRecord;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.store.AbstractIdempotencyStoreContractTests;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The store contract, plus the leased mode's own rules, for {@link InMemoryIdempotencyStore}.
 */
class InMemoryIdempotencyStoreTests extends AbstractIdempotencyStoreContractTests {

	private final InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(this.clock);

	@Override
	protected IdempotencyStore store() {
		return this.store;
	}

	@Override
	protected ClaimResult claimAndSucceed(IdempotencyKey key, Duration retention) {
		ClaimResult claim = this.store.claim(key, LEASE, retention);
		if (claim.isClaimed()) {
			this.store.complete(key, claim, retention);
		}
		return claim;
	}

	@Override
	protected ClaimResult claimAndFail(IdempotencyKey key) {
		ClaimResult claim = this.store.claim(key, LEASE, RETENTION);
		if (claim.isClaimed()) {
			this.store.release(key, claim);
		}
		return claim;
	}

	@Override
	protected int purgeExpired() {
		return this.store.purgeExpired();
	}

	@Test
	void keyHeldUnderALeaseIsInProgress() {
		this.store.claim(key("held"), LEASE, RETENTION);
		assertThat(this.store.claim(key("held"), LEASE, RETENTION).status()).isEqualTo(Status.IN_PROGRESS);
	}

	@Test
	void expiredLeaseIsTakenOver() {
		this.store.claim(key("crashed"), LEASE, RETENTION);
		this.clock.advance(LEASE.plusSeconds(1));
		assertThat(this.store.claim(key("crashed"), LEASE, RETENTION).status()).isEqualTo(Status.CLAIMED);
	}

	@Test
	void lateWorkerCannotReleaseOrCompleteTheClaimThatTookOver() {
		ClaimResult late = this.store.claim(key("slow"), LEASE, RETENTION);
		this.clock.advance(LEASE.plusSeconds(1));
		ClaimResult current = this.store.claim(key("slow"), LEASE, RETENTION);
		this.store.release(key("slow"), late);
		assertThat(this.store.claim(key("slow"), LEASE, RETENTION).status()).isEqualTo(Status.IN_PROGRESS);
		this.store.complete(key("slow"), late, RETENTION);
		this.clock.advance(LEASE.plusSeconds(1));
		assertThat(this.store.claim(key("slow"), LEASE, RETENTION).status())
			.as("the late worker's complete must not have marked the key processed")
			.isEqualTo(Status.CLAIMED);
		assertThat(current.token()).isNotEqualTo(late.token());
	}

	@Test
	void inspectAndReleaseFollowTheKeysState() {
		IdempotencyKey key = key("inspected");
		assertThat(this.store.inspect(key)).isNull();
		ClaimResult claim = this.store.claim(key, LEASE, RETENTION);
		assertThat(this.store.inspect(key)).satisfies((record) -> {
			assertThat(record.status()).isEqualTo(KeyRecord.Status.PROCESSING);
			assertThat(record.mayStillRun(this.clock.instant())).isTrue();
		});
		assertThat(this.store.release(key, false)).isEqualTo(KeyRelease.REFUSED_IN_PROGRESS);
		this.store.complete(key, claim, RETENTION);
		assertThat(this.store.inspect(key).status()).isEqualTo(KeyRecord.Status.COMPLETED);
		assertThat(this.store.release(key, false)).isEqualTo(KeyRelease.RELEASED);
		assertThat(this.store.claim(key, LEASE, RETENTION).isClaimed()).isTrue();
		assertThat(this.store.release(key, true)).as("forced").isEqualTo(KeyRelease.RELEASED);
		assertThat(this.store.release(key, false)).isEqualTo(KeyRelease.NOT_FOUND);
	}

	@Test
	void duplicatesAreCountedOnTheKeyUntilItIsReleased() {
		IdempotencyKey key = key("counted");
		this.store.recordDuplicate(key);
		claimAndSucceed(key);
		this.store.recordDuplicate(key);
		this.store.recordDuplicate(key);
		assertThat(this.store.inspect(key).duplicates()).as("a key that was not there is not counted").isEqualTo(2);
		assertThat(this.store.inspect(key).lastDuplicateAt()).isEqualTo(this.clock.instant());
		this.store.release(key, false);
		claimAndSucceed(key);
		assertThat(this.store.inspect(key).duplicates()).isZero();
	}

}
