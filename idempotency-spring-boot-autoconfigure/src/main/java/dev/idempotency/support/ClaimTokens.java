package dev.idempotency.support;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Tokens that tell one claim of a leased store from another: a random prefix drawn once per
 * instance, then a counter. Unique within the process by the counter and across processes by the
 * 96 random bits; cheaper than {@code UUID.randomUUID()}, which reads the shared
 * {@code SecureRandom} on every claim and serialises concurrent consumers on its lock. Tokens only
 * need to be unique, not secret: they never authorise anything.
 *
 * @since 0.1.0
 */
public final class ClaimTokens implements Supplier<String> {

	private final String prefix;

	private final AtomicLong sequence = new AtomicLong();

	public ClaimTokens() {
		byte[] random = new byte[12];
		new SecureRandom().nextBytes(random);
		this.prefix = HexFormat.of().formatHex(random) + "-";
	}

	@Override
	public String get() {
		return this.prefix + Long.toString(this.sequence.incrementAndGet(), Character.MAX_RADIX);
	}

}
