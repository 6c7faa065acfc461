import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, StreamViewType, Table, TableEncryption, type ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import { INDEX_NAME, TTL_ATTRIBUTE } from '../shared/store/keys.js';

/**
 * A table made outside the stack, typically restored from a backup (a restore always makes a new table):
 * the stack then uses it instead of creating its own. See docs/deployment.md, "Restore".
 */
export interface ExistingTable {
  tableName: string;
  /** The restored table's stream (NEW_IMAGE), enabled by hand: a restore does not carry streams over. */
  tableStreamArn: string;
}

/**
 * The one table (docs/decisions.md, decision 5). Same shape as shared/store/table.ts creates locally: generic keys,
 * one index named gsi1, TTL on. Retained when the stack goes: users' data outlives a mistaken delete.
 */
export class ServiceTable extends Construct {
  readonly table: ITable;

  constructor(scope: Construct, id: string, props: { encryptionKey: IKey; existing?: ExistingTable }) {
    super(scope, id);
    if (props.existing) {
      this.table = Table.fromTableAttributes(this, 'Table', { ...props.existing, encryptionKey: props.encryptionKey });
      return;
    }
    const table = new Table(this, 'Table', {
      partitionKey: { name: 'pk', type: AttributeType.STRING },
      sortKey: { name: 'sk', type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: TTL_ATTRIBUTE,
      encryption: TableEncryption.CUSTOMER_MANAGED,
      encryptionKey: props.encryptionKey,
      removalPolicy: RemovalPolicy.RETAIN,
      deletionProtection: true,
      // The courier reads new outbox items from here (docs/decisions.md, decision 6).
      stream: StreamViewType.NEW_IMAGE,
    });
    this.table = table;
    table.addGlobalSecondaryIndex({
      indexName: INDEX_NAME,
      partitionKey: { name: 'gsi1pk', type: AttributeType.STRING },
      sortKey: { name: 'gsi1sk', type: AttributeType.STRING },
    });
  }
}
