package dev.idempotency.sample;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import org.jspecify.annotations.Nullable;

/**
 * What the payments flow sends: distinct payment requests and repeats of some of them (a client
 * retrying after a timeout), shuffled together, and the payments whose claim a crashed run left
 * behind before the demo started.
 *
 * @param unique the distinct payments
 * @param duplicates the repeated requests, each also in {@code unique}
 * @param sends the requests and their repeats, in sending order
 * @param crashedAfterCharge a payment whose run crashed after the provider charged it, before its
 * key was marked completed; {@code null} when no crash is simulated
 * @param crashedBeforeCharge a payment whose run crashed after its claim, before it called the
 * provider; {@code null} when no crash is simulated
 */
public record DemoPayments(List<PaymentRequested> unique, List<PaymentRequested> duplicates,
		List<PaymentRequested> sends, @Nullable PaymentRequested crashedAfterCharge,
		@Nullable PaymentRequested crashedBeforeCharge) {

	static DemoPayments generate(DemoProperties demo) {
		DemoProperties.Payments settings = demo.payments();
		Random random = new Random(demo.seed());
		List<PaymentRequested> unique = new ArrayList<>();
		for (int i = 1; i <= settings.count(); i++) {
			unique.add(new PaymentRequested("pay-%05d".formatted(i), 100 + random.nextInt(10_000)));
		}
		List<PaymentRequested> duplicates = new ArrayList<>();
		long duplicateCount = (unique.isEmpty()) ? 0 : Math.round(settings.count() * settings.duplicateRatio());
		for (long i = 0; i < duplicateCount; i++) {
			duplicates.add(unique.get(random.nextInt(unique.size())));
		}
		List<PaymentRequested> sends = new ArrayList<>(unique);
		sends.addAll(duplicates);
		Collections.shuffle(sends, random);
		boolean crashes = settings.crashedClaims() && unique.size() >= 2;
		return new DemoPayments(List.copyOf(unique), List.copyOf(duplicates), List.copyOf(sends),
				crashes ? unique.get(0) : null, crashes ? unique.get(1) : null);
	}

	/** How many crashed claims the demo leaves before it sends the requests. */
	public int crashedClaims() {
		return ((this.crashedAfterCharge != null) ? 1 : 0) + ((this.crashedBeforeCharge != null) ? 1 : 0);
	}

}
