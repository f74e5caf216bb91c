package dev.idempotency.sample;

/**
 * A request to charge a payment at the payment provider, read from the {@value PaymentsFlow#TOPIC}
 * topic. The same payment may be requested more than once (a client retrying after a timeout); it
 * must be charged once.
 *
 * @param paymentId the payment's id, the idempotency key
 * @param amountCents the amount to charge, in cents
 */
public record PaymentRequested(String paymentId, long amountCents) {

}
