package dev.idempotency.sample;

import java.util.ArrayList;
import java.util.List;

/**
 * The outcome of a demo run: the order service's side (orders placed, events written to the outbox
 * and sent by its relay), then one section per order flow, then the payments flow.
 *
 * @param ordersPlaced rows in the orders table
 * @param eventsResent events of already placed orders published again (new message id)
 * @param outboxSent outbox rows the relay sent, over all flows
 * @param outboxUnsent outbox rows not sent (pending or dead) when the report was made
 * @param flows what each flow's consumers did
 * @param filters what the duplicate filter layers answered (the {@code filters} profile)
 * @param payments what the payments flow did
 */
public record DemoReport(long ordersPlaced, long eventsResent, long outboxSent, long outboxUnsent,
		List<FlowReport> flows, FilterCounts filters, PaymentsReport payments) {

	/** Whether every flow credited every valid order exactly once. */
	public boolean creditedOncePerOrder() {
		return this.flows.stream().allMatch(FlowReport::creditedOncePerOrder);
	}

	/** Whether every order was credited once in every flow and every payment charged once. */
	public boolean exactlyOnce() {
		return creditedOncePerOrder() && this.payments.chargedOncePerPayment();
	}

	/**
	 * The run's verdict in one line, for the last line of the demo's output.
	 * @return {@code PASS} or {@code FAIL} with what was checked
	 */
	public String verdict() {
		return (exactlyOnce() ? "PASS" : "FAIL") + ": every order credited exactly once in every flow: "
				+ creditedOncePerOrder() + "; every payment charged exactly once: "
				+ this.payments.chargedOncePerPayment();
	}

	/** The report of one flow. */
	public FlowReport flow(String titlePrefix) {
		return this.flows.stream()
			.filter((flow) -> flow.title().startsWith(titlePrefix))
			.findFirst()
			.orElseThrow(() -> new IllegalArgumentException("No flow " + titlePrefix + " in " + this.flows));
	}

	@Override
	public String toString() {
		List<String> lines = new ArrayList<>();
		lines.add("Orders -> points demo");
		lines.add("  orders placed         %7d  (order row + OrderPlaced outbox row, one transaction each)"
			.formatted(this.ordersPlaced));
		lines.add("  events re-sent        %7d  (same order, new message id)".formatted(this.eventsResent));
		lines.add("  outbox rows sent      %7d  (to %d flow(s); unsent: %d)".formatted(this.outboxSent, this.flows.size(),
				this.outboxUnsent));
		this.flows.forEach((flow) -> lines.add(flow.toString()));
		if (!this.filters.answers().isEmpty()) {
			lines.add(this.filters.toString());
		}
		lines.add("every flow credited == unique: " + creditedOncePerOrder());
		lines.add(this.payments.toString());
		return String.join(System.lineSeparator(), lines);
	}

}
