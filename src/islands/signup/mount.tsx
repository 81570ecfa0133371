import { createRoot } from 'react-dom/client';
import { SignupWizard, type SignupWizardProps } from './SignupWizard';

/** Mounts the wizard into the desktop signup modal; `busy` keeps the modal open while the account is created. */
export function mountSignupWizard(container: HTMLElement, props: SignupWizardProps, onBusyChange: (busy: boolean) => void) {
  createRoot(container).render(<SignupWizard {...props} onBusyChange={onBusyChange} />);
}
