package dev.idempotency.sample;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import io.micrometer.core.instrument.MeterRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.ExitCodeGenerator;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.stereotype.Component;

/**
 * Places the demo's orders through the order service (each order and its outbox event in one
 * transaction), re-sends some of their events, has every flow inject its broken messages, sends
 * the payment requests (after leaving the claims of two crashed payment runs), waits until the
 * outbox relay has sent everything and every flow's consumers are done, and logs what happened, with
 * the dedup store's health and one key as the {@code idempotency} endpoint shows it. The
 * exit code is 0 when every flow credited every order exactly once and every payment was charged
 * once, 1 otherwise.
 */
@Component
@ConditionalOnBooleanProperty("demo.enabled")
public class DemoRunner implements ApplicationRunner, ExitCodeGenerator {

	private static final Log logger = LogFactory.getLog(DemoRunner.class);

	private final DemoProperties demo;

	private final OrderService orderService;

	private final OutboxRows outbox;

	private final List<OrderFlow> flows;

	private final MeterRegistry meters;

	private final PaymentsFlow payments;

	private final OperationsReport operations;

	private volatile @Nullable DemoOrders orders;

	private volatile @Nullable DemoPayments paymentRequests;

	private volatile @Nullable DemoReport report;

	private volatile List<String> operationsReport = List.of();

	public DemoRunner(DemoProperties demo, OrderService orderService, OutboxRows outbox, List<OrderFlow> flows,
			MeterRegistry meters, PaymentsFlow payments, OperationsReport operations) {
		this.demo = demo;
		this.meters = meters;
		this.orderService = orderService;
		this.outbox = outbox;
		this.flows = flows;
		this.payments = payments;
		this.operations = operations;
	}

	@Override
	public void run(ApplicationArguments args) throws Exception {
		long deadline = System.nanoTime() + this.demo.drainTimeout().toNanos();
		for (OrderFlow flow : this.flows) {
			flow.awaitReady(remaining(deadline));
		}
		DemoPayments paymentRequests = DemoPayments.generate(this.demo);
		this.paymentRequests = paymentRequests;
		boolean crashedClaimsLeft = this.payments.leaveCrashedClaims(paymentRequests);
		this.payments.send(paymentRequests);
		DemoOrders orders = DemoOrders.generate(this.demo);
		this.orders = orders;
		Set<String> placed = new HashSet<>();
		long resent = 0;
		for (OrderPlaced order : orders.sends()) {
			// The first send of an order places it; a later one re-sends its event under a new message id.
			if (placed.add(order.orderId())) {
				this.orderService.placeOrder(order);
			}
			else {
				this.orderService.resendOrderPlaced(order.orderId());
				resent++;
			}
		}
		for (OrderFlow flow : this.flows) {
			flow.sendBroken(orders);
		}
		awaitOutboxSent(remaining(deadline));
		for (OrderFlow flow : this.flows) {
			flow.awaitConsumed(remaining(deadline));
		}
		List<FlowReport> flowReports = new ArrayList<>();
		for (OrderFlow flow : this.flows) {
			flowReports.add(flow.report(orders));
		}
		this.payments.awaitConsumed(remaining(deadline));
		DemoReport report = new DemoReport(this.orderService.ordersPlaced(), resent, this.outbox.sent(),
				this.outbox.unsent(), List.copyOf(flowReports), FilterCounts.from(this.meters),
				this.payments.report(paymentRequests, crashedClaimsLeft));
		this.report = report;
		List<String> operations = this.operations.describe(KafkaFlow.GROUP,
				orders.unique().isEmpty() ? null : orders.unique().get(0).orderId());
		this.operationsReport = operations;
		logger.info(System.lineSeparator() + report + System.lineSeparator()
				+ String.join(System.lineSeparator(), operations) + System.lineSeparator() + "Verdict: "
				+ report.verdict());
	}

	private void awaitOutboxSent(Duration timeout) throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (this.outbox.unsent() > 0) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException(
						"The outbox relay left " + this.outbox.unsent() + " rows unsent within " + timeout);
			}
			Thread.sleep(100);
		}
	}

	private static Duration remaining(long deadline) {
		return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
	}

	/** The orders of the last run, or {@code null} before the run. */
	public @Nullable DemoOrders orders() {
		return this.orders;
	}

	/** The payment requests of the last run, or {@code null} before the run. */
	public @Nullable DemoPayments paymentRequests() {
		return this.paymentRequests;
	}

	/** The report of the last run, or {@code null} before the run. */
	public @Nullable DemoReport report() {
		return this.report;
	}

	/** The store's health and one key lookup printed after the last run's report, empty before. */
	public List<String> operationsReport() {
		return this.operationsReport;
	}

	@Override
	public int getExitCode() {
		DemoReport report = this.report;
		return (report == null || report.exactlyOnce()) ? 0 : 1;
	}

}
