import { describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { invitationUrl, statusOf, type InvitationRecord } from '../../shared/domain/tenants/invitations.js';

const invitation = (over: Partial<InvitationRecord> = {}): InvitationRecord => ({
  id: 'i-1',
  tenant_id: 't-1',
  email: 'a@example.test',
  envs: [],
  invitation_url: 'https://auth.localhost/invitation',
  inviter_id: 'u-1',
  created_at: 100,
  expired_at: 200,
  remove_at: 300,
  status: 'pending',
  ...over,
});

describe('invitations', () => {
  it('is pending until expired_at, expired from then on, accepted whatever the clock says', () => {
    assert.equal(statusOf(invitation(), 199), 'pending');
    assert.equal(statusOf(invitation(), 200), 'expired');
    assert.equal(statusOf(invitation({ status: 'accepted', accepted_at: 150 }), 250), 'accepted');
  });

  it('links to the invitation page of the login screen with both ids, encoded', () => {
    const screen = 'https://api.acme.test/v1/auth/login/s1/';
    assert.equal(invitationUrl(screen, 't 1', 'i&2'), `${screen}invitation?invitation_id=i%262&tenant_id=t+1`);
  });
});
