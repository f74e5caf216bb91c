package dev.idempotency.kafka.share;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;

import org.springframework.kafka.listener.ShareConsumerRecordRecoverer;

/**
 * The recoverer of every share container the adapter binds: returns the decision its listener
 * wrapper took ({@link ShareDecisionException}). Any other failure reaches it from the container
 * itself, outside the listener (an acknowledgement the client refused): the record is released,
 * never rejected, so that nothing is lost without a decision.
 *
 * @since 0.2.0
 */
final class ShareDecisionRecoverer implements ShareConsumerRecordRecoverer {

	private static final Log logger = LogFactory.getLog(ShareDecisionRecoverer.class);

	@Override
	public AcknowledgeType recover(ConsumerRecord<?, ?> record, Exception exception) {
		ShareDecisionException decided = ShareFailurePolicy.find(exception, ShareDecisionException.class);
		if (decided != null) {
			return decided.decision().type();
		}
		if (logger.isDebugEnabled()) {
			logger.debug("Releasing " + ShareFailurePolicy.describe(record) + " after a failure outside the listener",
					exception);
		}
		return AcknowledgeType.RELEASE;
	}

}
