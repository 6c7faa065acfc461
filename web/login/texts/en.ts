// The not-found page's words as plain constants, so the catalogue below names them without a property read of
// EN_NOT_FOUND, which esbuild would keep (and the whole catalogue with it) in every bundle that imports this file.
const NOT_FOUND_TITLE = 'Not found';
const NOT_FOUND_TEXT = 'There is no login screen at this address.';
/**
 * The words of the page every API function answers a browser's unknown address with (web/login/unmatched-page.ts),
 * apart from the catalogue: those functions carry these few, not every word of the screen.
 */
export const EN_NOT_FOUND: NotFoundTexts = { lang: 'en', title: NOT_FOUND_TITLE, text: NOT_FOUND_TEXT };

/**
 * Every English word of the hosted login screen, the page's and its script's: a translation is another file of
 * this shape (docs/login-screen.md). `{name}` marks a value filled in where the text is used.
 */
export const EN = {
  lang: 'en',
  /** The language's own name, as the switch on the page shows it. */
  languageName: 'English',
  page: {
    defaultTitle: 'Sign in',
    signInHeading: 'Sign in',
    invitationHeading: 'Accept your invitation',
    invitationIntro: '{saas} invited you to join {tenant} as {email}. Sign in with that address, or choose a password if you are new.',
    invitationUnusable: 'This invitation cannot be accepted: {reason}',
    signedInAs: 'Signed in as {name}.',
    signInAgainLoginAsked: 'The application asks you to sign in again.',
    signInAgainTooOld: 'You signed in too long ago for this application: sign in again.',
    signInAgainSecondFactor: 'This account now uses a second factor: sign in again with it.',
    signInAgainSecondFactorAsked: 'The application asks for a sign-in with a second factor: sign in again.',
    signInAgainOtherTenant: 'Your sign-in was through another organisation: sign in again.',
    notYou: 'Not you? Use another account',
    invitationNotPending: 'it is {status}.',
    invitationMissing: 'there is no such invitation.',
    email: 'E-mail address',
    emailOrSignInId: 'E-mail address or sign-in ID',
    password: 'Password',
    signIn: 'Sign in',
    rememberDevice: 'Remember this browser (no code next time)',
    newHere: 'New here? Choose a password',
    newAccountHeading: 'We sent a code to {email}: enter it, and choose your password.',
    createAccount: 'Create my account and join',
    haveAccount: 'I already have an account',
    newPasswordHeading: 'Choose a new password',
    newPasswordIntro: 'Your password was temporary. Choose your own to finish signing in.',
    newPassword: 'New password',
    setPassword: 'Set password and sign in',
    totpPrompt: 'Enter the 6-digit code from your authenticator app.',
    emailCodePrompt: 'Enter the code we sent to your e-mail address.',
    code: 'Code',
    verify: 'Verify',
    startAgain: 'Start again',
    forgotPassword: 'Forgot your password?',
    createAccountLink: 'Create an account',
    signUpHeading: 'Create an account',
    signUpIntro: 'We will send a temporary password to this address. Sign in with it to choose your own.',
    acceptTerms: 'I accept the {link}',
    acceptPrivacy: 'I accept the {link}',
    signUp: 'Send my temporary password',
    resend: 'Send it again',
    signUpChosenIntro: 'Choose your password. We will send a code to this address to confirm it is yours.',
    signUpChosen: 'Create my account',
    signUpCodeIntro: 'We sent a code to {email}. Enter it to create your account; it is valid for one hour.',
    confirmSignUp: 'Confirm and sign in',
    confirmPassword: 'Password again',
    showPassword: 'Show password',
    passwordRules: 'The password needs:',
    ruleLength: 'at least {count} characters',
    ruleLowercase: 'a lower-case letter (a–z)',
    ruleUppercase: 'an upper-case letter (A–Z)',
    ruleNumber: 'a number (0–9)',
    ruleSymbol: 'a symbol, such as ! @ # $ % & *',
    ruleNoOuterSpace: 'no space at the start or end',
    consentHeading: 'Create your account',
    consentIntro: 'No account here uses {email} yet. Accept the following to create one with your Google account.',
    consentContinue: 'Accept and continue',
    forgotHeading: 'Reset your password',
    forgotIntro: 'Enter your e-mail address or sign-in ID. We will send a code to the e-mail address of the account.',
    sendCode: 'Send the code',
    resetIntro: 'Enter the code we sent and your new password.',
    resetPassword: 'Set the new password and sign in',
    backToSignIn: 'Back to sign in',
    termsOfService: 'Terms of service',
    privacyPolicy: 'Privacy policy',
    notFoundTitle: NOT_FOUND_TITLE,
    notFound: NOT_FOUND_TEXT,
    wrongHostTitle: 'Not this address',
    wrongHost: 'This sign-in page is not served at this address. Open the link the application gave you.',
    badRequestTitle: 'Cannot sign in here',
    federationFailedTitle: 'Could not sign in with Google',
    samlFailedTitle: "Could not sign in with your organization's account",
    signInWithGoogle: 'Sign in with Google',
    /** Between the password form and the other ways in. */
    or: 'or',
    linkHeading: 'Link your Google account',
    linkIntro: '{email} already has an account here. We sent a code to that address: enter it to link your Google account and sign in.',
    linkAndSignIn: 'Link and sign in',
    badAuthorizationRequest: "The application's sign-in request is not valid ({detail}). Go back to the application and try again.",
    scriptNeeded: 'This page needs JavaScript to sign you in without sending your password.',
    customContent: 'Information from the application',
    languageSwitch: 'Language',
    stepExpiredTitle: 'This sign-in has expired',
    stepExpired: 'This sign-in took too long, or it was started in another browser. Start again.',
    providerUnavailableTitle: 'This way of signing in is not available',
    providerUnavailable: 'We could not reach the sign-in provider, or its settings are not complete. Sign in another way, or try again later.',
    providerRefused: 'The provider did not sign you in ({detail}). Start again, or sign in another way.',
    otherWays: 'Sign in another way',
    goBack: 'Back to the sign-in page',
    signInWithPasskey: 'Sign in with a passkey',
    managePasskeysAfter: 'Show my passkeys after signing in',
    passkeysHeading: 'Passkeys',
    passkeysOffer: 'Sign in next time with your fingerprint, face or device PIN instead of a password: add a passkey.',
    passkeysIntro: 'Your passkeys sign you in here without a password. Remove one you no longer use.',
    noPasskeys: 'You have no passkey yet.',
    passkeyCreated: 'Added {date}',
    passkeyLastUsed: 'last used {date}',
    passkeyNeverUsed: 'not used yet',
    passkeySynced: 'Synced passkey',
    passkeyThisDevice: 'Passkey on one device',
    removePasskey: 'Remove',
    addPasskey: 'Add a passkey',
    passkeysContinue: 'Continue to the application',
    sessionsTitle: 'Where you are signed in',
    sessionsIntro: 'Signed in as {name}. These browsers are signed in to your account here:',
    sessionsLink: 'Where am I signed in?',
    sessionThisBrowser: 'This browser',
    sessionDevice: '{browser} on {os}',
    sessionUnknownDevice: 'An unknown browser',
    sessionSignedIn: 'Signed in',
    sessionLastUsed: 'Last used',
    sessionMethod: 'How',
    sessionFrom: 'From',
    sessionPassword: 'password',
    sessionCode: 'one-time code',
    sessionRememberedDevice: 'remembered browser',
    sessionPasskey: 'passkey',
    sessionProvider: 'identity provider',
    signOutThis: 'Sign out of this one',
    signOutOthers: 'Sign out everywhere else',
    noOtherSessions: 'No other browser is signed in.',
    sessionsNotSignedIn: 'This browser is not signed in.',
    sessionsEnded: 'Signed out of that browser.',
    sessionsOthersEnded: 'Signed out everywhere else.',
    sessionsBackToSignIn: 'Sign in',
    passkeysRequired: 'This application signs you in with a passkey only. Your password was right: create your passkey now to finish signing in.',
  },
  /** What the script shows: while working, and for each refusal the service can give (by its error type). */
  messages: {
    working: 'Signing in…',
    redirecting: 'Signed in. Taking you back to the application…',
    wrongCredentials: 'The e-mail address or password is not right. After several tries, wait a moment before trying again.',
    wrongCredentialsMoved:
      'The e-mail address or password is not right. If your account was moved here without a password, we have mailed you a code: choose "Forgot your password?" to set one.',
    wrongCode: 'That code is not right, or it has expired.',
    sessionExpired: 'This sign-in took too long. Start again.',
    passwordPolicy: 'The new password {detail}',
    temporaryPasswordExpired: 'Your temporary password has expired. Ask for a new one.',
    noCallback: 'This application has not set where to return after sign-in (its callback URL). Tell its operator.',
    invitationMismatch: 'This invitation was sent to another e-mail address.',
    accountExists: 'An account with this address exists already: sign in instead.',
    unavailable: 'Something went wrong on our side. Try again in a moment.',
    refused: 'That did not work: {detail}',
    unsupportedChallenge: 'This account needs a sign-in step this screen does not offer yet.',
    signUpSent: 'If {email} can sign up, we sent it a temporary password. Sign in with it to choose your own.',
    resetSent: 'If there is an account for {username} with an e-mail address, we sent it a code, valid for one hour.',
    setPasswordFor: 'Choose a password for {username}. The code from your mail is filled in.',
    mustAccept: 'Accept the terms of service and the privacy policy to create an account.',
    selfSignUpOff: 'This application does not let people create their own accounts.',
    tooManyMails: 'We have sent this address several mails already. Wait a while before asking again.',
    passkeyRefused: 'That passkey was not accepted here. Try again, or sign in with your password.',
    passkeyCancelled: 'The passkey was not used (cancelled or timed out).',
    passkeyUnsupported: 'This browser cannot use passkeys.',
    passkeyAdded: 'Passkey added. Next time, choose "Sign in with a passkey".',
    passkeyRemoved: 'Passkey removed.',
    passkeyExists: 'This passkey is registered already.',
    passkeysOff: 'This application does not offer passkeys.',
    passkeyRequired: 'This application signs you in with your passkey only: choose "Sign in with a passkey".',
    signUpCodeSent: 'If {email} can sign up, we sent it a code.',
    signUpChanged: 'How this application sets passwords at sign-up has changed. Reload the page and try again.',
    ruleMet: '(done)',
    ruleNotMet: '(not yet)',
    passwordsMatch: 'The two passwords match.',
    passwordsDiffer: 'The two passwords do not match yet.',
    passwordBreached: 'This password has appeared in data breaches, so others may try it. Choose another.',
  },
} as const;

/**
 * What every catalogue must hold: each key of the English one, and no other. A catalogue declared with this
 * type (`export const JA: LoginTexts = {…}`) does not compile while a key is missing or misspelt.
 */
export interface LoginTexts {
  lang: string;
  languageName: string;
  page: Record<keyof (typeof EN)['page'], string>;
  messages: Record<keyof (typeof EN)['messages'], string>;
}
export type MessageName = keyof LoginTexts['messages'];

/** The not-found page's words in one language (a catalogue's `page.notFoundTitle` and `page.notFound`). */
export interface NotFoundTexts {
  lang: string;
  title: string;
  text: string;
}

/** A text with its `{name}` marks filled in. */
export function fill(text: string, values: Record<string, string>): string {
  return text.replace(/\{(\w+)\}/g, (mark, name: string) => values[name] ?? mark);
}
